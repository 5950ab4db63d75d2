provider app {
    probe start(int);
};
