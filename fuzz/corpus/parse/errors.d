provider p {
    probe good(int);
    probe bad(int a, char *b;
    probe gc__start();
    probe gc_start();
};
