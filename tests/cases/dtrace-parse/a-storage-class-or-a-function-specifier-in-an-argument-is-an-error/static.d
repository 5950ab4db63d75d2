provider p {
    probe a(static int x);
};
