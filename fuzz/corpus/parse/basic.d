provider myapp {
    probe request__start(const char *url, int fd);
    probe request__done(int status);
    probe tick();
    probe idle(void);
};
