#define T int
provider p {
  probe a(T);
#if 1
  probe b() junk;
#endif
};
