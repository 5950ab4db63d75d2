provider p {
    probe a(unsigned unsigned);
};
