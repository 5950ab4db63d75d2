provider p {
    probe a(void, int);
};
