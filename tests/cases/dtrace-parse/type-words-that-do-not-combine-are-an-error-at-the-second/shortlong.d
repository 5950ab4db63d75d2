provider p {
    probe a(short long);
};
