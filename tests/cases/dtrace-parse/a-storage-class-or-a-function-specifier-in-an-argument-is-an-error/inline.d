provider p {
    probe a(inline int f);
};
