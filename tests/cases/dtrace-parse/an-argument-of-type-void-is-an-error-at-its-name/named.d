provider p {
    probe a(void x);
};
