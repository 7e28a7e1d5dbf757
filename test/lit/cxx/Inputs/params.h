#pragma once
#define LANES 16
