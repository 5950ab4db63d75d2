provider p {
  probe 2fast();
};
