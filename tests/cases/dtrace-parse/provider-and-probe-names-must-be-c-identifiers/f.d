provider p {
  probe (int);
};
