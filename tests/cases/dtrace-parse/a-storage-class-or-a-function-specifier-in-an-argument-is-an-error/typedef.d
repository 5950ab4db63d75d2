provider p {
    probe a(int n, typedef long t);
};
