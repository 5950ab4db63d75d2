provider p {
    probe good(int);
    probe bad(int a, char *b;
    probe later();
};
