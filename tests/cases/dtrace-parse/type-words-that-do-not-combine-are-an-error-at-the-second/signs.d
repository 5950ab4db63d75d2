provider p {
    probe a(unsigned signed x);
};
