provider p {
    probe a(const void);
};
