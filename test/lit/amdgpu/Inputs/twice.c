// A C device function the Loom kernel in mixed.loom calls.
float twice_plus_one(float x) { return 2.0f * x + 1.0f; }
