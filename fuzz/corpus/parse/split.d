provider p { probe a(int); };
provider q { probe x(); };
%%
provider p { probe b(char *); }
provider r { probe y(short, signed char); };
