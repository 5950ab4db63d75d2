provider p {
    probe op(int a) : int;
};
