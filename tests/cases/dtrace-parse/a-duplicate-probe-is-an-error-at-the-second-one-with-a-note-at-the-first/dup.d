provider p {
    probe a();
    probe b();
    probe a(int);
};
