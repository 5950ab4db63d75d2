provider p {
    probe a(long float);
};
