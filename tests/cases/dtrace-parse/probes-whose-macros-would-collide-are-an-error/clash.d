provider p {
    probe gc__start();
    probe gc_start();
};
