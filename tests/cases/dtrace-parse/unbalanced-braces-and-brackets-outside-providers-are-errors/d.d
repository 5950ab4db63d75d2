provider p {
  probe a(int [4);
};
