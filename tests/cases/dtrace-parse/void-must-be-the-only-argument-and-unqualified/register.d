provider p {
    probe a(register void);
};
