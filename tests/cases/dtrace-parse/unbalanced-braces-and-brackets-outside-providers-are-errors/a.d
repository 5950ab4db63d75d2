struct s { int a;
