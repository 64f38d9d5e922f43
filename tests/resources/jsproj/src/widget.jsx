import React from 'react';
import Button from './button.jsx';
import config from './config.mjs';
import greet, { shout as yell } from './greet.mjs';

export default function Widget({ name }) {
  const onClick = () => yell(name, 2);
  return <Button label={greet(config.title)} onClick={onClick} />;
}
