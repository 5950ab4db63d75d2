provider p {
    probe a(int x);
    probe b(int x) junk;
};
