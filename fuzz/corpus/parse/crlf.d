provider crlf {
    probe one(int a, \
              char *b);
    // a comment
    probe two(); /* block
 comment */
};
