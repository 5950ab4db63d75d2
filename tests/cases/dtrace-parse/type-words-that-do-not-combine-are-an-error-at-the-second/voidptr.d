provider p {
    probe a(long void *p);
};
