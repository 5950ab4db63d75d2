provider p {
    probe a(long long long x);
};
