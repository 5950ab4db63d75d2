provider p {
    probe a();
    probe a();
    probe b(int, int, int, int, int, int, int, int, int, int, int, int, int);
};
