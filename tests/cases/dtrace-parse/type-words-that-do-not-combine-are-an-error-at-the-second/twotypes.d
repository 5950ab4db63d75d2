provider p {
    probe a(int char);
};
