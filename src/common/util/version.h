/* version.h - the one place the core states its own version. */
#ifndef OPTIMUS_VERSION_H
#define OPTIMUS_VERSION_H
#define OPTIMUS_VERSION "0.1.0"
#endif
