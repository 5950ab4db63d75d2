#line 100 "elsewhere.d"
provider p {
  probe ok();
#line 7
  probe x-y();
};
