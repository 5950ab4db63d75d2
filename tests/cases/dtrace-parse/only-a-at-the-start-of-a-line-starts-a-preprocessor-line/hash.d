provider p { probe x(int) # not a comment
};
