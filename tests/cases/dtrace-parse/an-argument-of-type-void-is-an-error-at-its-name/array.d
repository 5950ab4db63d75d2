provider p {
    probe a(int n, void x[4]);
};
