provider a_b { probe c(); };
provider A { probe B_c(); };
provider a { probe b_c(); };
