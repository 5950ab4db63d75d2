provider p {
    prob a();
};
