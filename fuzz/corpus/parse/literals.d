struct s { char c = 'x'; char *str = "a \"quoted\" \
string"; float f = 1.5e+10; int h = 0x1fULL; };
provider lit { probe x(char c, double d) ; probe y(struct s *p); } ;
