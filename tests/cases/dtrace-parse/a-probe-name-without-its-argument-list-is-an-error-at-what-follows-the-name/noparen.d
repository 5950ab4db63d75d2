provider p {
    probe start;
};
