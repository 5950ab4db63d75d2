provider p {
    banana a();
};
