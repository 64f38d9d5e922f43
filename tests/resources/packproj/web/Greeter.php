<?php

namespace App;

interface Greeter
{
    public function greet(string $name): string;
}

abstract class Base
{
    protected function shout(string $text): string
    {
        return strtoupper($text);
    }
}

class Hello extends Base implements Greeter
{
    public function greet(string $name): string
    {
        return $this->shout(format_name($name));
    }
}

function format_name(string $name): string
{
    return trim($name);
}
