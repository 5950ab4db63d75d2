#define T int
/* a comment
   over lines */

provider p {
    probe a(T);
    probe b(int, int;
};
