provider p {
  probe a() junk;
};
