#![no_main]

tevscope_fuzz::target!(tevscope::testing::fuzz::cmdl_shaders);
