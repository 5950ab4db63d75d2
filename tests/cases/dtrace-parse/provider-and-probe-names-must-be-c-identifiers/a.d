provider my-prov {
};
