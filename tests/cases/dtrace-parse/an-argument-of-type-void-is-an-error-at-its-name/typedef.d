typedef int my_t;
provider p {
    probe a(void my_t);
};
