provder p {
    probe a();
};
