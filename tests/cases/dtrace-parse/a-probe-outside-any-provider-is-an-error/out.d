typedef int t;
probe lonely(int);
