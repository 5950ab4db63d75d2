provider p {
    probe a(unsinged int x, cosnt char *s, itn y);
    probe b(uint u, int lnog, struct conn *c, ulong v);
};
