#ifndef GEOMETRY_H
#define GEOMETRY_H

struct point {
    int x;
    int y;
};

typedef struct point point_t;

int distance2(const point_t *a, const point_t *b);

#endif
