#![no_main]

tevscope_fuzz::target!(tevscope::testing::fuzz::mp3_mrea_shaders);
