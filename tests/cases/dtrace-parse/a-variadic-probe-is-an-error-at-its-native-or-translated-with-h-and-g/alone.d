provider p {
    probe a(...);
};
