provider p {
  probe a()
  int b();
};
