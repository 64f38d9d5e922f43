const Button = ({ label, onClick }) => <button onClick={onClick}>{label}</button>;

export default Button;
