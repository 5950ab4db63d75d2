provider p {
    probe a(const char *fmt, ...);
};
