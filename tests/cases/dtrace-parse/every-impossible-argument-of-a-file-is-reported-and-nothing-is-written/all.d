provider p {
    probe a(int, ...);
    probe b(void x);
    probe ok(int, char *);
};
provider q {
    probe c(int x, void);
    probe d(short short);
};
