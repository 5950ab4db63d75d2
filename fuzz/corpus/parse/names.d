provider my-prov { probe 2fast(); probe a$b(); };
provider ok_name { probe dup(); probe dup(); probe x__enabled(); probe x(); };
