provider q {
  probe z() junk;
};
