translator x { a = "oops;
};
provider p { probe a(); };
